# Writes the recorded CSW answers of this folder (GeoNetwork 3.x/4.x, ArcGIS Geoportal Server 2.x),
# from the CSW 2.0.2 schemas and the products' documented answers: python3 generate.py
import os
D=os.path.dirname(os.path.abspath(__file__))+'/'
NS='xmlns:gmd="http://www.isotc211.org/2005/gmd" xmlns:gco="http://www.isotc211.org/2005/gco" xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:xlink="http://www.w3.org/1999/xlink"'
def iso(fid, title, mod='2026-10-01', ns=True, org='NOAA National Centers for Environmental Information'):
    fi = '' if fid is None else f'''
  <gmd:fileIdentifier><gco:CharacterString>{fid}</gco:CharacterString></gmd:fileIdentifier>'''
    decl = (' '+NS) if ns else ''
    return f'''<gmd:MD_Metadata{decl}>{fi}
  <gmd:language><gco:CharacterString>eng</gco:CharacterString></gmd:language>
  <gmd:hierarchyLevel><gmd:MD_ScopeCode codeList="http://www.isotc211.org/2005/resources/Codelist/gmxCodelists.xml#MD_ScopeCode" codeListValue="dataset">dataset</gmd:MD_ScopeCode></gmd:hierarchyLevel>
  <gmd:contact>
    <gmd:CI_ResponsibleParty>
      <gmd:individualName><gco:CharacterString>Data Officer</gco:CharacterString></gmd:individualName>
      <gmd:organisationName><gco:CharacterString>{org}</gco:CharacterString></gmd:organisationName>
      <gmd:contactInfo><gmd:CI_Contact><gmd:address><gmd:CI_Address>
        <gmd:electronicMailAddress><gco:CharacterString>data.officer@example.gov</gco:CharacterString></gmd:electronicMailAddress>
      </gmd:CI_Address></gmd:address></gmd:CI_Contact></gmd:contactInfo>
      <gmd:role><gmd:CI_RoleCode codeList="http://www.isotc211.org/2005/resources/Codelist/gmxCodelists.xml#CI_RoleCode" codeListValue="pointOfContact">pointOfContact</gmd:CI_RoleCode></gmd:role>
    </gmd:CI_ResponsibleParty>
  </gmd:contact>
  <gmd:dateStamp><gco:Date>{mod}</gco:Date></gmd:dateStamp>
  <gmd:identificationInfo>
    <gmd:MD_DataIdentification>
      <gmd:citation><gmd:CI_Citation>
        <gmd:title><gco:CharacterString>{title}</gco:CharacterString></gmd:title>
        <gmd:date><gmd:CI_Date><gmd:date><gco:Date>{mod}</gco:Date></gmd:date>
          <gmd:dateType><gmd:CI_DateTypeCode codeList="http://www.isotc211.org/2005/resources/Codelist/gmxCodelists.xml#CI_DateTypeCode" codeListValue="revision">revision</gmd:CI_DateTypeCode></gmd:dateType></gmd:CI_Date></gmd:date>
      </gmd:CI_Citation></gmd:citation>
      <gmd:abstract><gco:CharacterString>{title}: observations collected and quality controlled by the agency, published through its OGC CSW catalogue.</gco:CharacterString></gmd:abstract>
      <gmd:pointOfContact>
        <gmd:CI_ResponsibleParty>
          <gmd:organisationName><gco:CharacterString>{org}</gco:CharacterString></gmd:organisationName>
          <gmd:contactInfo><gmd:CI_Contact><gmd:address><gmd:CI_Address>
            <gmd:electronicMailAddress><gco:CharacterString>data.officer@example.gov</gco:CharacterString></gmd:electronicMailAddress>
          </gmd:CI_Address></gmd:address></gmd:CI_Contact></gmd:contactInfo>
          <gmd:role><gmd:CI_RoleCode codeList="http://www.isotc211.org/2005/resources/Codelist/gmxCodelists.xml#CI_RoleCode" codeListValue="pointOfContact">pointOfContact</gmd:CI_RoleCode></gmd:role>
        </gmd:CI_ResponsibleParty>
      </gmd:pointOfContact>
      <gmd:descriptiveKeywords><gmd:MD_Keywords>
        <gmd:keyword><gco:CharacterString>oceans</gco:CharacterString></gmd:keyword>
        <gmd:keyword><gco:CharacterString>climate</gco:CharacterString></gmd:keyword>
      </gmd:MD_Keywords></gmd:descriptiveKeywords>
      <gmd:language><gco:CharacterString>eng</gco:CharacterString></gmd:language>
      <gmd:extent><gmd:EX_Extent><gmd:geographicElement><gmd:EX_GeographicBoundingBox>
        <gmd:westBoundLongitude><gco:Decimal>-125.0</gco:Decimal></gmd:westBoundLongitude>
        <gmd:eastBoundLongitude><gco:Decimal>-66.9</gco:Decimal></gmd:eastBoundLongitude>
        <gmd:southBoundLatitude><gco:Decimal>24.4</gco:Decimal></gmd:southBoundLatitude>
        <gmd:northBoundLatitude><gco:Decimal>49.4</gco:Decimal></gmd:northBoundLatitude>
      </gmd:EX_GeographicBoundingBox></gmd:geographicElement></gmd:EX_Extent></gmd:extent>
    </gmd:MD_DataIdentification>
  </gmd:identificationInfo>
  <gmd:distributionInfo><gmd:MD_Distribution><gmd:transferOptions><gmd:MD_DigitalTransferOptions><gmd:onLine><gmd:CI_OnlineResource>
    <gmd:linkage><gmd:URL>https://data.example.gov/{(fid or 'none').strip('{}')}.csv</gmd:URL></gmd:linkage>
    <gmd:name><gco:CharacterString>CSV download</gco:CharacterString></gmd:name>
  </gmd:CI_OnlineResource></gmd:onLine></gmd:MD_DigitalTransferOptions></gmd:transferOptions></gmd:MD_Distribution></gmd:distributionInfo>
</gmd:MD_Metadata>'''

def caps(product, version_list, schemas, get=True, post=True, path='/csw', v='2.0.2', cl=('FILTER','CQL_TEXT')):
    dcp = '<ows:DCP><ows:HTTP>'
    if get: dcp += f'<ows:Get xlink:href="{{{{URL}}}}{path}"/>'
    if post: dcp += f'<ows:Post xlink:href="{{{{URL}}}}{path}"/>'
    dcp += '</ows:HTTP></ows:DCP>'
    vals = ''.join(f'<ows:Value>{s}</ows:Value>' for s in schemas)
    cls = ''.join(f'<ows:Value>{s}</ows:Value>' for s in cl)
    vers = ''.join(f'<ows:ServiceTypeVersion>{x}</ows:ServiceTypeVersion>' for x in version_list)
    return f'''<?xml version="1.0" encoding="UTF-8"?>
<!-- {product}: GetCapabilities, written from the CSW 2.0.2 schema (OGC 07-006r1) and the product's documented answer -->
<csw:Capabilities xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:ows="http://www.opengis.net/ows" xmlns:ogc="http://www.opengis.net/ogc" xmlns:xlink="http://www.w3.org/1999/xlink" version="{v}">
  <ows:ServiceIdentification>
    <ows:Title>{product}</ows:Title>
    <ows:ServiceType>CSW</ows:ServiceType>
    {vers}
  </ows:ServiceIdentification>
  <ows:OperationsMetadata>
    <ows:Operation name="GetCapabilities">{dcp}</ows:Operation>
    <ows:Operation name="DescribeRecord">{dcp}</ows:Operation>
    <ows:Operation name="GetRecords">{dcp}
      <ows:Parameter name="resultType"><ows:Value>hits</ows:Value><ows:Value>results</ows:Value><ows:Value>validate</ows:Value></ows:Parameter>
      <ows:Parameter name="outputFormat"><ows:Value>application/xml</ows:Value></ows:Parameter>
      <ows:Parameter name="outputSchema">{vals}</ows:Parameter>
      <ows:Parameter name="typeNames"><ows:Value>csw:Record</ows:Value><ows:Value>gmd:MD_Metadata</ows:Value></ows:Parameter>
      <ows:Parameter name="CONSTRAINTLANGUAGE">{cls}</ows:Parameter>
    </ows:Operation>
    <ows:Operation name="GetRecordById">{dcp}</ows:Operation>
    <ows:Parameter name="service"><ows:Value>CSW</ows:Value></ows:Parameter>
    <ows:Parameter name="version"><ows:Value>2.0.2</ows:Value></ows:Parameter>
  </ows:OperationsMetadata>
</csw:Capabilities>
'''

def page(product, matched, start, recs, nxt, root_ns=False, gn=True):
    extra = (' '+NS) if root_ns else ''
    body = '\n'.join(recs)
    return f'''<?xml version="1.0" encoding="UTF-8"?>
<!-- {product}: GetRecords resultType=results startPosition={start} -->
<csw:GetRecordsResponse xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"{extra} xsi:schemaLocation="http://www.opengis.net/cat/csw/2.0.2 http://schemas.opengis.net/csw/2.0.2/CSW-discovery.xsd">
  <csw:SearchStatus timestamp="2026-11-30T10:00:00"/>
  <csw:SearchResults numberOfRecordsMatched="{matched}" numberOfRecordsReturned="{len(recs)}" elementSet="full" nextRecord="{nxt}">
{body}
  </csw:SearchResults>
</csw:GetRecordsResponse>
'''

def w(name, s):
    open(D+name,'w').write(s)

GN=['http://www.opengis.net/cat/csw/2.0.2','http://www.isotc211.org/2005/gmd','http://www.w3.org/ns/dcat#']
w('geonetwork3-capabilities.xml', caps('GeoNetwork 3.12 (srv/eng/csw)', ['2.0.2'], GN, path='/geonetwork/srv/eng/csw'))
ids=['b3f4a2d0-6c1e-4c8e-9d5a-0a1b2c3d4e5f','c1d2e3f4-0000-4a4a-8b8b-111111111111','d9e8f7a6-1234-4bcd-9eef-222222222222','e5a4b3c2-5678-4f01-8a23-333333333333','f0e1d2c3-9abc-4def-8123-444444444444']
titles=['Sea Surface Temperature, Gulf of Maine','Coastal Relief Model, Volume 1','Bathymetric Survey H13152','Tide Station Water Levels','Marine Heatwave Index']
for k,start in enumerate([1,3,5]):
    recs=[iso(ids[i],titles[i]) for i in range(start-1,min(start+1,5))]
    nxt = start+2 if start+2<=5 else 0
    w(f'geonetwork3-getrecords-{start}.xml', page('GeoNetwork 3.12', 5, start, recs, nxt))
# GeoNetwork 4: GET only binding used; last page nextRecord = matched+1
gids=['urn:uuid:7a1f0c8e-aaaa-4b00-9c11-000000000001','urn:uuid:7a1f0c8e-aaaa-4b00-9c11-000000000002','urn:uuid:7a1f0c8e-aaaa-4b00-9c11-000000000003','urn:uuid:7a1f0c8e-aaaa-4b00-9c11-000000000004']
gt=['Groundwater Levels, Ohio','Streamflow Statistics','Land Cover 2021','Soil Moisture Grid']
w('geonetwork4-capabilities.xml', caps('GeoNetwork 4.2 (srv/eng/csw)', ['2.0.2'], GN, path='/geonetwork/srv/eng/csw', post=True))
w('geonetwork4-getrecords-1.xml', page('GeoNetwork 4.2', 4, 1, [iso(gids[0],gt[0],org='U.S. Geological Survey'), iso(gids[1],gt[1],org='U.S. Geological Survey')], 3))
w('geonetwork4-getrecords-3.xml', page('GeoNetwork 4.2', 4, 3, [iso(gids[2],gt[2],org='U.S. Geological Survey'), iso(gids[3],gt[3],org='U.S. Geological Survey')], 5))
# ArcGIS Geoportal Server 2.x: namespaces on the root, one page of 4: two good, one without fileIdentifier, a repeat of the first
GP=['http://www.opengis.net/cat/csw/2.0.2','http://www.isotc211.org/2005/gmd','http://www.opengis.net/cat/csw/csdgm','http://www.w3.org/2005/Atom']
w('geoportal2-capabilities.xml', caps('ArcGIS Geoportal Server 2.6', ['2.0.2'], GP, path='/geoportal/csw'))
pids=['{5D2A3F10-1B2C-4D3E-8F40-ABCDEF012345}','{9E8D7C6B-5A49-4382-9170-FEDCBA987654}']
w('geoportal2-getrecords-1.xml', page('ArcGIS Geoportal Server 2.6', 4, 1, [iso(pids[0],'Wetlands Inventory, Region 4',ns=False,org='U.S. Environmental Protection Agency'), iso(pids[1],'Air Quality Monitors',ns=False,org='U.S. Environmental Protection Agency'), iso(None,'A record without fileIdentifier',ns=False), iso(pids[0],'Wetlands Inventory, Region 4 (copy)',ns=False)], 0, root_ns=True))
def fgdc(onlink, title):
    ol = f'<onlink>{onlink}</onlink>' if onlink else ''
    return f'''<metadata>
  <idinfo>
    <citation><citeinfo><origin>U.S. Geological Survey</origin><pubdate>2019</pubdate><title>{title}</title>{ol}</citeinfo></citation>
    <descript><abstract>{title}, as published in the FGDC Content Standard for Digital Geospatial Metadata.</abstract><purpose>Science.</purpose></descript>
    <status><progress>Complete</progress><update>None planned</update></status>
    <keywords><theme><themekt>None</themekt><themekey>geology</themekey></theme></keywords>
    <accconst>None</accconst><useconst>None</useconst>
  </idinfo>
  <metainfo><metd>20191001</metd><metstdn>FGDC Content Standard for Digital Geospatial Metadata</metstdn><metstdv>FGDC-STD-001-1998</metstdv></metainfo>
</metadata>'''
w('geoportal2-fgdc-getrecords-1.xml', page('ArcGIS Geoportal Server 2.6 (outputSchema csdgm)', 2, 1, [fgdc('https://pubs.usgs.gov/ds/1001/','Geologic Map of the Ozarks'), fgdc('https://pubs.usgs.gov/ds/1002/','Mineral Resources of Nevada')], 0))
print('ok')
